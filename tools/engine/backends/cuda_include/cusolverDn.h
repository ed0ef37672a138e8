// Stand-in declarations (see cusparse.h beside this file): opaque cuSOLVER types for static compiles.
#pragma once
#include <cusolver_common.h>
typedef struct cusolverDnContext* cusolverDnHandle_t;

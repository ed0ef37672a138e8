// Stand-in declarations (see cusparse.h beside this file): opaque cuBLASLt types for static compiles.
#pragma once
#include <cublas_v2.h>
typedef struct cublasLtContext* cublasLtHandle_t;

// Stand-in declarations (see cusparse.h beside this file): cuSOLVER's status type for static compiles.
#pragma once
typedef enum { CUSOLVER_STATUS_SUCCESS = 0, CUSOLVER_STATUS_INVALID_VALUE = 3 } cusolverStatus_t;

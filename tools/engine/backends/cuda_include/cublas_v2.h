// Stand-in declarations (see cusparse.h beside this file): opaque cuBLAS types for static compiles.
#pragma once
typedef struct cublasContext* cublasHandle_t;
typedef enum { CUBLAS_STATUS_SUCCESS = 0 } cublasStatus_t;
const char* cublasGetStatusString(cublasStatus_t status);

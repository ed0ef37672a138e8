// Stand-in declarations for a machine whose CUDA toolkit lacks cuSPARSE's headers (searched after
// the toolkit's and torch's own include directories, so real headers win). Torch's CUDA headers
// (ATen/cuda/CUDAContext.h) name these types in declarations only; a kernel calling cuSPARSE itself
// still needs the real library. Used only for static compiles (resource figures), never to link.
#pragma once
typedef struct cusparseContext* cusparseHandle_t;
typedef enum { CUSPARSE_STATUS_SUCCESS = 0 } cusparseStatus_t;
const char* cusparseGetErrorString(cusparseStatus_t status);

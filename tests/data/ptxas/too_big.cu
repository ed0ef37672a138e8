__global__ void too_big(float* x){ __shared__ float s[100000]; s[threadIdx.x]=x[threadIdx.x]; __syncthreads(); x[threadIdx.x]=s[99999-threadIdx.x]; }
__device__ __noinline__ float helper(float* a, int n){ float b[64]; for(int i=0;i<64;i++) b[i]=a[i*n]; float t=0; for(int i=0;i<64;i++) t+=b[(i*n)&63]; return t; }
__global__ void calls(float* x, int n){ x[threadIdx.x] = helper(x, n); }
__global__ void __launch_bounds__(1024) lb(float* x, int n){ float a[64]; for(int j=0;j<64;j++) a[j]=x[j*n+threadIdx.x]; float t=0; for(int j=0;j<64;j++) for(int i=0;i<64;i++) t+=a[i]*a[j]*x[i+j]; x[threadIdx.x]=t; }

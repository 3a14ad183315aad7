#pragma once
// GP_HD marks the small math functions that the kernels (nvcc) and the CPU references (g++) share.
#ifdef __CUDACC__
#define GP_HD __host__ __device__ __forceinline__
#else
#define GP_HD inline
#endif

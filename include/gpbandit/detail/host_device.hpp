/// @file host_device.hpp
/// GPB_HD marks functions callable from host and CUDA device code (empty for a plain C++ compiler).
/// No CUDA header is included, so public headers that use it stay plain C++17.
#pragma once

#if defined(__CUDACC__)
#define GPB_HD __host__ __device__
#else
#define GPB_HD
#endif

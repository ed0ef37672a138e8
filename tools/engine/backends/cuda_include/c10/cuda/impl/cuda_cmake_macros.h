// Stand-in for the header a CUDA build of torch generates at build time; CPU wheels do not ship it,
// and without it no source that includes c10/cuda headers compiles for the static check. Searched
// after torch's own include directories, so a CUDA torch's real header wins.
#pragma once
#define C10_CUDA_BUILD_SHARED_LIBS

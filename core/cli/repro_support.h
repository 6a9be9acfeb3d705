/* repro_support.h — the fixed parts of a repro folder (cmd_repro.h): the
 * .npy reader/writer and the bit-for-bit check every launcher includes
 * (repro.h there), and the CUDA driver's few declarations for a Triton
 * launcher. Static text; nothing here is allocated. */
#ifndef AOTIDBG_REPRO_SUPPORT_H
#define AOTIDBG_REPRO_SUPPORT_H

/* The folder's repro.h: C++17, the standard library only. */
extern const char repro_support_npy[];
/* The CUDA launcher's driver declarations and loader (dlopen of libcuda.so.1). */
extern const char repro_support_cuda[];

#endif

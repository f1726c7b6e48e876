/* The C ABI of a task file's FP64 reference (docs/task-files.md). A task file names a C++ (or C)
 * source, `reference = "ref.cpp"`; the harness compiles it with the host compiler into a shared
 * object (-std=c++17 -O2 -shared -fPIC -I<this folder>, cached by content) and calls, for every
 * instance it checks:
 *
 *     extern "C" void mskb_reference(const mskb_ref_args* args);
 *
 * `args->params` lists every parameter of the entry point in its signature order. Buffers hold
 * FP64 values whatever their device type (float, bfloat16, half, int32 or int64): inputs already
 * rounded to it (an int64 is exact: the harness keeps int64 values within +-2^53), outputs zeroed
 * (role "out" and "accumulate") or holding the input ("inout"). Write every output element as the
 * FP64 value it should have; never touch an input. The harness compares the device's output with
 * it (a half output decoded to FP64 and held to the tolerance, an int32 or int64 one exactly).
 * Scalars carry their value (rounded like the device argument). `dims` are the instance's shape
 * variables (the task file's `dims`, in order).
 *
 * The function must be reentrant (no mutable globals): the harness may call it from several
 * threads for different instances. Report a problem through mskb_ref_fail (the check then ends
 * as a harness error with the message) rather than aborting. This header needs only the C
 * standard library; include it from C or C++.
 */
#ifndef MSKB_REFERENCE_H
#define MSKB_REFERENCE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MSKB_REF_ABI_VERSION 1

enum mskb_ref_role { MSKB_REF_IN = 0, MSKB_REF_OUT = 1, MSKB_REF_INOUT = 2, MSKB_REF_ACCUMULATE = 3 };
enum mskb_ref_precision { MSKB_REF_FP32 = 0, MSKB_REF_BF16 = 1 };

typedef struct mskb_ref_param {
  const char* name;
  int is_buffer;  /* 1: data/length; 0: value */
  int role;       /* enum mskb_ref_role (buffers) */
  double* data;   /* buffers: length elements */
  int64_t length;
  double value;   /* scalars */
} mskb_ref_param;

typedef struct mskb_ref_dim {
  const char* name;
  int64_t value;
} mskb_ref_dim;

typedef struct mskb_ref_args {
  int abi_version; /* MSKB_REF_ABI_VERSION */
  int precision;   /* enum mskb_ref_precision: the entry point being checked */
  int num_params;
  mskb_ref_param* params;
  int num_dims;
  const mskb_ref_dim* dims;
  char* error;     /* mskb_ref_fail writes here; empty when the call succeeded */
  size_t error_size;
} mskb_ref_args;

/* The symbol the harness looks up. */
typedef void (*mskb_reference_fn)(const mskb_ref_args* args);

/* Records a failure message (the first one wins); the harness reports it after the call. */
static inline void mskb_ref_fail(const mskb_ref_args* a, const char* message) {
  if (a->error && a->error_size > 0 && a->error[0] == '\0') snprintf(a->error, a->error_size, "%s", message);
}

/* The parameter named `name`, or NULL (and a recorded failure). */
static inline mskb_ref_param* mskb_ref_param_named(const mskb_ref_args* a, const char* name) {
  int i;
  char msg[160];
  for (i = 0; i < a->num_params; ++i)
    if (strcmp(a->params[i].name, name) == 0) return &a->params[i];
  snprintf(msg, sizeof msg, "mskb_reference: no parameter named '%s'", name);
  mskb_ref_fail(a, msg);
  return NULL;
}

/* A buffer's data (NULL if there is no such buffer), its length (0 if none). */
static inline double* mskb_ref_data(const mskb_ref_args* a, const char* name) {
  mskb_ref_param* p = mskb_ref_param_named(a, name);
  if (p && !p->is_buffer) {
    mskb_ref_fail(a, "mskb_reference: mskb_ref_data of a scalar parameter");
    return NULL;
  }
  return p ? p->data : NULL;
}
static inline int64_t mskb_ref_length(const mskb_ref_args* a, const char* name) {
  mskb_ref_param* p = mskb_ref_param_named(a, name);
  return p && p->is_buffer ? p->length : 0;
}

/* A scalar parameter's value (0 if there is none). */
static inline double mskb_ref_scalar(const mskb_ref_args* a, const char* name) {
  mskb_ref_param* p = mskb_ref_param_named(a, name);
  return p ? p->value : 0.0;
}

/* A shape variable's value (0 and a recorded failure if there is none). */
static inline int64_t mskb_ref_dim_value(const mskb_ref_args* a, const char* name) {
  int i;
  char msg[160];
  for (i = 0; i < a->num_dims; ++i)
    if (strcmp(a->dims[i].name, name) == 0) return a->dims[i].value;
  snprintf(msg, sizeof msg, "mskb_reference: no shape variable named '%s'", name);
  mskb_ref_fail(a, msg);
  return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* MSKB_REFERENCE_H */

# One place for warning flags. Host C++ gets the full set; CUDA gets what nvcc forwards cleanly.
add_library(mskb_warnings INTERFACE)
target_compile_options(mskb_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wconversion -Wno-sign-conversion>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${MSKB_WERROR}>>:-Werror>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${MSKB_WERROR}>>:-Werror=all-warnings>)

# One place for warning flags. Host C++ gets the full set; CUDA gets what nvcc forwards cleanly.
add_library(mskb_warnings INTERFACE)
target_compile_options(mskb_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wconversion -Wno-sign-conversion>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${MSKB_WERROR}>>:-Werror>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${MSKB_WERROR}>>:-Werror=all-warnings>)
# GCC 13 flags every `const T& x = f("literal")` where f returns a reference into static storage
# (mskb::get_task): a false positive for registry look-ups.
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag(-Wno-dangling-reference MSKB_HAS_WNO_DANGLING_REFERENCE)
if(MSKB_HAS_WNO_DANGLING_REFERENCE)
  target_compile_options(mskb_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-dangling-reference>)
endif()

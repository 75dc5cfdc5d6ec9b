// Catch2 v2 main, shared by the native and the WebAssembly (node) test binaries.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

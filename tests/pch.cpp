// Compiles the tests' precompiled header (tests/CMakeLists.txt: cgmem_test_pch).

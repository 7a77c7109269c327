// Compiles the libraries' precompiled header (src/CMakeLists.txt: cgmem_pch).

# Cross-compiling for 64-bit Arm (Jetson, Raspberry Pi 4/5 with a 64-bit OS) on a Debian or Ubuntu
# amd64 host, with Debian's cross toolchain (crossbuild-essential-arm64) and multiarch -dev
# packages (libsqlite3-dev:arm64, ...). scripts/cross-arm64 installs them and uses this file.
#
# Test binaries run under qemu-aarch64 (CMAKE_CROSSCOMPILING_EMULATOR), which gtest discovery and
# ctest use; the multiarch libraries and the arm64 loader (libc6:arm64) live where qemu looks by
# default. No `-L /usr/aarch64-linux-gnu`: that prefix holds the cross toolchain's own copy of
# glibc, and a program that loads both copies spins forever in its first pthread_create.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)

# Headers and libraries of the target come from the multiarch paths; programs from the host.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# pkg-config must see the arm64 .pc files, not the host's.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

set(EDGEMOND_DEB_ARCH arm64 CACHE STRING "Debian architecture of the package")

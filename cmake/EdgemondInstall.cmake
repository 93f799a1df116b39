# Installation: where a distribution puts each file, and the Debian package (CPack).
#
#   cmake --install build                      # under CMAKE_INSTALL_PREFIX (/usr/local)
#   cmake --install build --prefix /usr        # as a distribution would
#   (cd build && cpack)                        # build/edgemond_<version>_<arch>.deb, for /usr
#
# What goes where (cmake/EdgemondInstallScript.cmake.in decides at install time, from the prefix
# in force then, so the unit file always names the binary and configuration where they were put):
#   <prefix>/bin/edgemond
#   <prefix>/lib/systemd/system/edgemond.{service,socket}
#   <prefix>/lib/sysusers.d/edgemond.conf, <prefix>/lib/tmpfiles.d/edgemond.conf
#   <sysconf>/edgemond/edgemond.json, <sysconf>/edgemond/alerts.d/*.json: <sysconf> is /etc for
#     the prefix /usr (as GNUInstallDirs has it) and <prefix>/etc otherwise; never overwritten
#   <prefix>/share/edgemond/etc/: the shipped configuration, for reference
#   <prefix>/share/doc/edgemond/: README and the operator's documentation

configure_file("${PROJECT_SOURCE_DIR}/cmake/EdgemondInstallScript.cmake.in"
               "${PROJECT_BINARY_DIR}/EdgemondInstallScript.cmake" @ONLY)
install(SCRIPT "${PROJECT_BINARY_DIR}/EdgemondInstallScript.cmake")

# The Debian package. Built for /usr whatever the configured prefix; the architecture is the
# target's (dpkg --print-architecture, or EDGEMOND_DEB_ARCH when cross-compiling).
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "edgemond")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "edgemond maintainers <edgemond@users.noreply.github.com>")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
# With CPACK_SET_DESTDIR, CPack installs with DESTDIR and this prefix: the install script then sees
# the real prefix (/usr) and puts the configuration in /etc, as the unit file says.
set(CPACK_INSTALL_PREFIX "/usr")
set(CPACK_SET_DESTDIR ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME "DEB-DEFAULT")
set(CPACK_DEBIAN_PACKAGE_SECTION "admin")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Monitoring daemon for edge-AI devices\n CPU, memory, thermal, hwmon, power and GPU sensors of Jetson boards,\n Raspberry Pis and GPU boxes, stored in SQLite, served as JSON and Prometheus\n /metrics, with threshold alerts written to the systemd journal.")
if(NOT EDGEMOND_DEB_ARCH)
  execute_process(COMMAND dpkg --print-architecture OUTPUT_VARIABLE EDGEMOND_DEB_ARCH
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
set(EDGEMOND_DEB_ARCH "${EDGEMOND_DEB_ARCH}" CACHE STRING "Debian architecture of the package")
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE "${EDGEMOND_DEB_ARCH}")
# Library dependencies from the binary (dpkg-shlibdeps), plus what the maintainer scripts use.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "systemd")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
file(GLOB edgemond_rule_files RELATIVE "${PROJECT_SOURCE_DIR}/etc/edgemond"
     "${PROJECT_SOURCE_DIR}/etc/edgemond/alerts.d/*.json")
set(edgemond_conffiles "/etc/edgemond/edgemond.json\n")
foreach(relative ${edgemond_rule_files})
  string(APPEND edgemond_conffiles "/etc/edgemond/${relative}\n")
endforeach()
file(WRITE "${PROJECT_BINARY_DIR}/debian/conffiles" "${edgemond_conffiles}")
foreach(script postinst prerm postrm)
  configure_file("${PROJECT_SOURCE_DIR}/systemd/debian/${script}"
                 "${PROJECT_BINARY_DIR}/debian/${script}" COPYONLY)
endforeach()
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    "${PROJECT_BINARY_DIR}/debian/conffiles;${PROJECT_BINARY_DIR}/debian/postinst;${PROJECT_BINARY_DIR}/debian/prerm;${PROJECT_BINARY_DIR}/debian/postrm")
include(CPack)

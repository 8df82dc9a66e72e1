# CTest `DocsComplete`: runs Doxygen (docs/Doxyfile, no graphs) into OUT and fails when it warns,
# e.g. on a public symbol without a doc comment (WARN_IF_UNDOCUMENTED) or a broken reference.
# Usage: cmake -DSOURCE_DIR=... -DOUT=... -DDOXYGEN=... -DVERSION=... -P cmake/test_docs.cmake
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(ENV{GPB_VERSION} ${VERSION})
set(ENV{GPB_DOCS_OUT} ${OUT})
set(ENV{GPB_HAVE_DOT} NO)
execute_process(COMMAND ${DOXYGEN} docs/Doxyfile WORKING_DIRECTORY ${SOURCE_DIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "doxygen failed (${rc}):\n${out}\n${err}")
endif()
file(READ ${OUT}/warnings.log warnings)
if(NOT warnings STREQUAL "")
  message(FATAL_ERROR "Doxygen warnings (document every public symbol; see make docs):\n${warnings}")
endif()
if(NOT EXISTS ${OUT}/html/cli_run.html)
  message(FATAL_ERROR "docs/cli pages missing from the HTML output")
endif()
file(REMOVE_RECURSE ${OUT})

# The `cpu`-labelled tests check the CPU backend: on a machine with a GPU, Backend::Auto (the
# default of every Context, config and Python call) would run them on CUDA, whose results differ
# from the CPU's in the last bits that some of them compare. GPBANDIT_BACKEND=cpu settles Auto for
# those tests; the `gpu`-labelled ones ask for CUDA themselves and keep Auto as it is.
set(GPB_CPU_TEST_ENV GPBANDIT_BACKEND=set:cpu)

# gpb_pin_cpu_backend_tests(): every test added by add_test in the calling directory that is not
# labelled `gpu` runs with GPBANDIT_BACKEND=cpu. Call it after the directory's last add_test.
function(gpb_pin_cpu_backend_tests)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS tests)
    get_test_property(${t} LABELS labels)
    if(NOT "gpu" IN_LIST labels)
      set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT_MODIFICATION ${GPB_CPU_TEST_ENV})
    endif()
  endforeach()
endfunction()

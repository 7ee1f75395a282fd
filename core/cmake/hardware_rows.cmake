# Turns the columns every calculation reads (id, name, vendor, dense peaks, HBM size and
# bandwidth) of content/data/hardware.json into C++ initializers, MLSYS_HARDWARE_ROWS, for
# src/hardware/hardware_data.cpp.in: the engine then starts without parsing the table. A row
# that lacks one of these columns stops the configure step with CMake's JSON error.
function(mlsys_hardware_rows json out_var)
  string(JSON count LENGTH "${json}" accelerators)
  math(EXPR last "${count} - 1")
  set(rows "")
  foreach(i RANGE ${last})
    foreach(key id name vendor hbm_bytes hbm_bandwidth_Bps)
      string(JSON ${key} GET "${json}" accelerators ${i} ${key})
    endforeach()
    string(JSON peak_count LENGTH "${json}" accelerators ${i} peak_flops)
    math(EXPR last_peak "${peak_count} - 1")
    set(peaks "")
    foreach(j RANGE ${last_peak})
      string(JSON format MEMBER "${json}" accelerators ${i} peak_flops ${j})
      string(JSON value GET "${json}" accelerators ${i} peak_flops ${format})
      string(APPEND peaks "{R\"mlsys_hw(${format})mlsys_hw\", ${value}}, ")
    endforeach()
    string(APPEND rows "      {R\"mlsys_hw(${id})mlsys_hw\", R\"mlsys_hw(${name})mlsys_hw\", R\"mlsys_hw(${vendor})mlsys_hw\",\n"
                       "       {${peaks}}, ${hbm_bytes}, ${hbm_bandwidth_Bps}, ${i}},\n")
  endforeach()
  set(${out_var} "${rows}" PARENT_SCOPE)
endfunction()

# Turns the rows of content/data/models.json (published transformer configurations) into C++
# initializers, MLSYS_MODEL_ROWS, for src/transformer/published_models_data.cpp.in, as
# hardware_rows.cmake does for the hardware table. experts and experts_per_token are optional
# (mixture-of-experts rows only), and so are training_tokens and training_tokens_source (rows
# whose training run is published); every other column is required, and a row that lacks one
# stops the configure step with CMake's JSON error.
function(mlsys_model_rows json out_var)
  string(JSON count LENGTH "${json}" models)
  math(EXPR last "${count} - 1")
  set(rows "")
  foreach(i RANGE ${last})
    foreach(key id name layers hidden heads kv_heads head_dim ffn_hidden vocab seq gated_mlp tied_embeddings
                params source notes)
      string(JSON ${key} GET "${json}" models ${i} ${key})
    endforeach()
    foreach(key experts experts_per_token training_tokens)
      string(JSON ${key} ERROR_VARIABLE missing GET "${json}" models ${i} ${key})
      if(missing)
        set(${key} 0)
      endif()
    endforeach()
    string(JSON training_tokens_source ERROR_VARIABLE missing GET "${json}" models ${i} training_tokens_source)
    if(missing)
      set(training_tokens_source "")
    endif()
    foreach(key gated_mlp tied_embeddings)
      if(${key})
        set(${key} true)
      else()
        set(${key} false)
      endif()
    endforeach()
    string(APPEND rows
           "      {R\"mlsys_m(${id})mlsys_m\", R\"mlsys_m(${name})mlsys_m\",\n"
           "       {${layers}, ${hidden}, ${heads}, ${kv_heads}, ${head_dim}, ${ffn_hidden}, ${vocab}, ${seq}, "
           "${gated_mlp}, ${tied_embeddings}},\n"
           "       ${params}, ${experts}, ${experts_per_token},\n"
           "       R\"mlsys_m(${source})mlsys_m\",\n"
           "       R\"mlsys_m(${notes})mlsys_m\", ${i}, ${training_tokens},\n"
           "       R\"mlsys_m(${training_tokens_source})mlsys_m\"},\n")
  endforeach()
  set(${out_var} "${rows}" PARENT_SCOPE)
endfunction()

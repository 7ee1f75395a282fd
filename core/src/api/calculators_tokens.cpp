// Calculators of the lesson tokens-and-embeddings: `bpe` (shared/API.md: a BPE learner run on
// the reader's text) and `embedding-table` (vocab × hidden × dtype bytes and the share of the
// model's parameters). Models in core/src/tokens/; this file only declares schemas and outputs.
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/tokens/bpe.hpp"
#include "mlsys/tokens/embedding_table.hpp"
#include "model_inputs.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(BpeMerge, MLSYS_OUT(rank, "", "Order of the merge: 1 is learned (and applied) first"),
               MLSYS_OUT(pair, "", "[left, right]: the two adjacent tokens joined"),
               MLSYS_OUT(token, "", "left + right, the new token (\"</w>\" at its end marks a word end)"),
               MLSYS_OUT(count, "",
                         "Occurrences of the pair in the text just before this merge, every adjacent position "
                         "counted (three a's in a row hold (a, a) twice; the merge then joins them left to right, "
                         "\"aa a\")"),
               MLSYS_OUT(token_count, "", "Tokens of the whole text after this merge"));

MLSYS_DESCRIBE(BpeWord, MLSYS_OUT(word, "", "A distinct word of the text (whitespace-separated), as written"),
               MLSYS_OUT(count, "", "Its occurrences in the text"),
               MLSYS_OUT(tokens, "", "Its tokens after all merges"));

MLSYS_DESCRIBE(BpeResult,
               MLSYS_OUT(steps, "",
                         "The merges learned, in order; fewer than asked when no pair occurs twice "
                         "(stopped_early). Ties in count go to the pair seen first in the text as segmented then"),
               MLSYS_OUT(tokens, "", "The text's tokens after all merges, word by word in text order (whitespace is no token)"),
               MLSYS_OUT(token_count, "", "Number of tokens of the text after all merges"),
               MLSYS_OUT(vocab_size, "",
                         "Base symbols + tokens the merges made (base_symbols + steps; a merge that rebuilt an "
                         "existing token would count once); the end-of-word marker </w> is one base symbol"),
               MLSYS_OUT(base_symbols, "",
                         "The distinct base symbols, first seen first: Unicode code points (not bytes), and \"</w>\" "
                         "with end_of_word"),
               MLSYS_OUT(base_token_count, "", "Tokens of the text before any merge: its code points outside whitespace, plus one </w> per word with "
                         "end_of_word"),
               MLSYS_OUT(words, "", "The distinct words, first seen first, with their counts and final tokens"),
               MLSYS_OUT(word_count, "", "Words in the text, repeats included"),
               MLSYS_OUT(stopped_early, "", "Fewer merges than asked: no pair occurred at least twice"));

MLSYS_DESCRIBE(EmbeddingTable, MLSYS_OUT(vocab, "", "Rows of the table: the vocabulary size"),
               MLSYS_OUT(hidden, "", "Columns: the model width h"),
               MLSYS_OUT(row_bytes, "B", "One token's embedding vector: hidden × bytes per element"),
               MLSYS_OUT(embedding_params, "", "Input embedding table: vocab × hidden"),
               MLSYS_OUT(embedding_bytes, "B", "embedding_params × bytes per element"),
               MLSYS_OUT(head_params, "", "Untied output head (another vocab × hidden matrix); 0 when tied"),
               MLSYS_OUT(head_bytes, "B", "head_params × bytes per element"),
               MLSYS_OUT(table_params, "", "embedding_params + head_params (the `transformer` calculator's params_embedding)"),
               MLSYS_OUT(table_bytes, "B", "embedding_bytes + head_bytes"),
               MLSYS_OUT(params, "", "The model's parameters as the `transformer` calculator counts them"),
               MLSYS_OUT(share, "", "table_params / params: the fraction (0 to 1) of the parameters in the embedding tables"),
               MLSYS_OUT(head_flops_per_token, "FLOP",
                         "The output head's forward FLOPs per token, 2 · vocab · hidden (a matmul, tied or not)"),
               MLSYS_OUT(head_flops_share, "",
                         "The head's fraction (0 to 1) of the weight-matmul FLOPs per token: vocab · hidden / "
                         "params_flops (the `transformer` calculator's N; attention over the context excluded)"));

namespace {

// Sennrich et al. 2016's toy vocabulary (Figure 1: low ×5, lower ×2, newest ×6, widest ×3)
// written out as a text, so the defaults replay the paper's first merges.
const char* const kToyText =
    "low low low low low lower lower newest newest newest newest newest newest widest widest widest";

}  // namespace

void add_tokens_calculators(Calculators& out) {
  out.add("bpe",
          "Byte-pair encoding learned on a text (Sennrich et al. 2016): the text is split into words on whitespace, "
          "each word into Unicode code points (not bytes; invalid UTF-8 is an error), plus the end-of-word marker "
          "</w> as its own symbol with end_of_word; then the most frequent adjacent pair, counted over the words "
          "weighted by their frequency, is merged everywhere, `merges` times. Ties go to the pair seen first in the "
          "text; learning stops early when no pair occurs at least twice. Executed: an incremental merge loop "
          "checked against the paper's naive loop.",
          {string_field("text",
                        "Text to learn from: valid UTF-8, at most 20,000 characters (Unicode code points), split into "
                        "words at whitespace (Python's str.split()); no normalisation (é and e + U+0301 differ)",
                        kToyText, {}),
           integer_field("merges", "", "Merges to learn, at most 5,000 (learning stops earlier when no pair occurs twice)",
                         10, 0, kBpeMaxMerges),
           boolean_field("end_of_word",
                         "End every word with the marker </w>, a base symbol of its own (the paper's 'l o w </w>'), "
                         "so tokens at a word's end differ from the same letters inside one",
                         true)},
          [](const Inputs& in) { return bpe_learn(in.str("text"), in.integer("merges"), in.boolean("end_of_word")); });

  out.add("embedding-table",
          "Memory of the token-embedding table, vocab × hidden × bytes per element, plus the output head when it is "
          "untied, and the share of the model's parameters in them (the `transformer` calculator's count). Defaults: "
          "GPT-2 124M's shape.",
          [] {
            std::vector<Field> f = transformer_fields(published_defaults("gpt-2-124m"));
            f.push_back(dtype_field("bf16"));
            return f;
          }(),
          [](const Inputs& in) { return embedding_table(model_config_from(in), dtype_bytes(in.str("dtype"))); });
}

}  // namespace mlsys::api

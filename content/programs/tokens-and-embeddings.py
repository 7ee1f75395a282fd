"""Byte-pair encoding learned merge by merge, and the bytes and share of embedding tables.

A companion to the lesson "Tokenization and embeddings". It learns BPE on a text the way
Sennrich, Haddow and Birch (2016) describe it, with the course engine's conventions: words
split at whitespace, each word split into Unicode code points (not bytes) plus the end-of-word
marker </w> as a symbol of its own; every adjacent pair counted over the words, weighted by
their frequency; the most frequent pair merged everywhere (left to right); ties broken by the
pair seen first in the text as segmented at that moment; learning stops early when no pair
occurs twice. It prints every merge and the text's token count after it. Then it computes
the embedding table of published models, vocab × hidden × bytes (twice when the output head
is untied), the share of the parameters it holds, counting the model's matrices and norm
gains as the course does, and the output head's share of the weight-matmul FLOPs. Model shapes are the course's table, written into this file when
the course was built.

Run:  python3 tokens-and-embeddings.py                    the toy vocabulary of Sennrich et al.
      python3 tokens-and-embeddings.py --text "the cat sat on the mat" --merges 5
      python3 tokens-and-embeddings.py --dtype fp32 --vocab 32000
      python3 tokens-and-embeddings.py --json              the same numbers as JSON
"""
import argparse
import json
import sys
from course_data import table  # the tables of content/data; the download has them written in

MODELS = table("models: gpt-2-124m, gpt-3-175b, opt-13b, llama-2-7b, llama-2-13b, llama-2-70b, llama-3-8b, llama-3-70b, llama-3-405b, mistral-7b, gemma-7b, palm-540b | name, layers, hidden, heads, kv_heads, head_dim, ffn_hidden, vocab, gated_mlp, tied_embeddings")

SENNRICH = "low low low low low lower lower newest newest newest newest newest newest widest widest widest"
BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8-e4m3": 1, "int8": 1}
EOW = "</w>"


def learn_bpe(text, merges, end_of_word=True):
    """Learn up to `merges` merge rules on `text`; return the steps and the final segmentation."""
    counts = {}  # distinct words, first seen first (dicts keep insertion order)
    for w in text.split():
        counts[w] = counts.get(w, 0) + 1
    words = {w: list(w) + ([EOW] if end_of_word else []) for w in counts}
    base = []
    for symbols in words.values():
        for s in symbols:
            if s not in base:
                base.append(s)
    tokens = lambda: sum(counts[w] * len(s) for w, s in words.items())
    base_tokens, steps = tokens(), []
    for rank in range(1, merges + 1):
        pairs = {}  # pair -> count; insertion order = first seen in the text as segmented now
        for w, s in words.items():
            for a, b in zip(s, s[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + counts[w]
        if not pairs or max(pairs.values()) < 2:
            break  # no pair occurs twice: stop early
        best = max(pairs, key=pairs.get)  # max keeps the first of equal counts: the tie-break
        new = best[0] + best[1]
        for w, s in words.items():  # merge left to right, non-overlapping ("a a a" -> "aa a")
            out, i = [], 0
            while i < len(s):
                if i + 1 < len(s) and (s[i], s[i + 1]) == best:
                    out.append(new)
                    i += 2
                else:
                    out.append(s[i])
                    i += 1
            words[w] = out
        steps.append({"rank": rank, "pair": list(best), "token": new, "count": pairs[best], "token_count": tokens()})
    vocab = len(base) + len({s["token"] for s in steps} - set(base))
    return {"base_symbols": base, "base_token_count": base_tokens, "steps": steps, "token_count": tokens(),
            "vocab_size": vocab, "word_count": sum(counts.values()),
            "words": [{"word": w, "count": counts[w], "tokens": words[w]} for w in counts]}


def embedding(m, dtype, vocab=None):
    """Embedding table and untied head: parameters, bytes, and their share of the model's count."""
    L, h, f, V = m["layers"], m["hidden"], m["ffn_hidden"], vocab or m["vocab"]
    q, kv = m["heads"] * m["head_dim"], m["kv_heads"] * m["head_dim"]
    layers = L * (2 * h * q + 2 * h * kv + (3 if m["gated_mlp"] else 2) * h * f + 2 * h) + h  # matrices, norms
    table = V * h
    head = 0 if m["tied_embeddings"] else V * h  # tied: the table is also the output head
    params = layers + table + head
    return {"vocab": V, "row_bytes": h * BYTES[dtype], "embedding_params": table, "head_params": head,
            "embedding_bytes": table * BYTES[dtype], "table_bytes": (table + head) * BYTES[dtype],
            "params": params, "share": (table + head) / params,
            # the head is a matmul, tied or not: 2Vh of the 2 * (layers + Vh) weight FLOPs per token
            "head_flops_share": table / (layers + table)}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="tokens-and-embeddings.py", description="BPE merge by merge; embedding-table bytes and share.")
    p.add_argument("--text", default=SENNRICH, help="text to learn BPE on (default: Sennrich et al.'s toy vocabulary)")
    p.add_argument("--merges", type=int, default=10, help="merges to learn, 0 to 5000 (default 10)")
    p.add_argument("--dtype", default="bf16", choices=sorted(BYTES), help="format of the table (default bf16)")
    p.add_argument("--vocab", type=int, default=None, help="replace every model's vocabulary (default: as published)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    if not 0 <= a.merges <= 5000:
        p.error("--merges must be a whole number from 0 to 5000")
    if not a.text.split():
        p.error("--text must hold at least one word")
    if len(a.text) > 20000:
        p.error("--text must be at most 20,000 characters")
    if a.vocab is not None and not 1 <= a.vocab <= 4194304:
        p.error("--vocab must be a whole number from 1 to 4194304")

    bpe = learn_bpe(a.text, a.merges)
    # Each merge of a pair seen c times (never overlapping itself) shortens the text by c tokens.
    t = bpe["base_token_count"]
    for s in bpe["steps"]:
        if s["pair"][0] != s["pair"][1]:
            assert s["token_count"] == t - s["count"]
        t = s["token_count"]
    tables = {mid: embedding(m, a.dtype, a.vocab) for mid, m in MODELS.items()}
    if a.json:
        print(json.dumps({"bpe": bpe, "tables": tables}, indent=1, ensure_ascii=False))
        return

    print(f"BPE on {bpe['word_count']} words: {bpe['base_token_count']} tokens before any merge, "
          f"{len(bpe['base_symbols'])} base symbols: {' '.join(bpe['base_symbols'])}")
    print(" rank  pair               new token      count  tokens after")
    for s in bpe["steps"]:
        print(f" {s['rank']:>4}  {s['pair'][0] + ' + ' + s['pair'][1]:<18} {s['token']:<14} {s['count']:>5}  {s['token_count']:>6}")
    if len(bpe["steps"]) < a.merges:
        print(f"stopped after {len(bpe['steps'])} merges: no pair occurs twice")
    print(f"vocabulary {bpe['vocab_size']}, text {bpe['token_count']} tokens "
          f"({bpe['token_count'] / bpe['word_count']:.2f} per word)")
    for w in bpe["words"]:
        print(f"  {w['word']:<12} x{w['count']:<3} -> {' '.join(w['tokens'])}")

    print(f"\nEmbedding tables in {a.dtype}" + (f", every vocabulary set to {a.vocab:,}" if a.vocab else "") + ":")
    print(" model              vocab    hidden  tied   table + head (GB)   share of parameters   head's share of FLOPs")
    for mid, r in tables.items():
        m = MODELS[mid]
        print(f" {m['name']:<17}{r['vocab']:>8,}{m['hidden']:>8,}  {'yes' if m['tied_embeddings'] else 'no ':<5}"
              f"{r['table_bytes'] / 1e9:>12.3f}{r['share']:>18.1%}{r['head_flops_share']:>22.1%}")
    r = tables["llama-3-8b"]
    print(f"\nLlama 3 8B: one row {r['row_bytes']:,} B; table {r['embedding_bytes'] / 1e9:.2f} GB, "
          f"with its untied head {r['table_bytes'] / 1e9:.2f} GB")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Generate a synthetic knowledge base of N sections for scale benchmarks (scripts/bench.sh).

Usage: gen-synthetic.py N OUT_DIR [--per-file K] [--seed S]

Writes OUT_DIR/<group>/<file>.json files in the nabledge-6-large schema that kbidx's built-in
extraction program reads: {"id", "title", "index": [{"id", "title", "hints": [..]}],
"sections": {"sN": "markdown"}}, K sections per file (default 100), so N/K files in
directories of 50 files. Each section has 6-12 hints drawn from a mixed Japanese/English
vocabulary (Zipf-like, so some hints are common and most are rare, as in the real corpora),
a short title and ~400 characters of body text. Deterministic for a given seed (default 1):
the same N gives byte-identical files on every machine. OUT_DIR must not exist or be empty.
"""
import argparse
import json
import os
import random
import sys

JA = ("データベース 接続 トランザクション ページング 検索 登録 更新 削除 排他制御 楽観的ロック "
      "悲観的ロック バッチ 再実行 ログ 出力 入力 検証 バリデーション 認証 認可 セッション 画面 "
      "帳票 メッセージ 設定 環境 起動 停止 例外 エラー 処理 ファイル アップロード ダウンロード "
      "ハンドラ インターセプタ テスト 性能 キャッシュ 非同期 メール 国際化 日付 コード 採番").split()
EN = ("database connection transaction paging search insert update delete lock optimistic "
      "pessimistic batch rerun log output input validation auth session screen report message "
      "config environment start stop exception error handler interceptor test performance cache "
      "async mail i18n date code sequence dao entity repository query sql csv json xml rest "
      "http request response thread pool retry timeout").split()


def vocabulary(rng, size):
    words = list(JA) + list(EN)
    while len(words) < size:
        # Compound and identifier-like words, as knowledge bases have: UniversalDao, 排他制御ロック.
        a, b = rng.choice(JA + EN), rng.choice(JA + EN)
        words.append(a + b if rng.random() < 0.5 else f"{a}{b.capitalize()}{len(words)}")
    return words


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    ap.add_argument("--per-file", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if os.path.isdir(args.out) and os.listdir(args.out):
        sys.exit(f"gen-synthetic: {args.out} is not empty")
    rng = random.Random(args.seed)
    vocab = vocabulary(rng, 5000)
    weights = [1 / (i + 1) for i in range(len(vocab))]  # Zipf-like
    written = 0
    file_no = 0
    while written < args.n:
        k = min(args.per_file, args.n - written)
        group = f"group{file_no // 50:04d}"
        fid = f"topic-{file_no:05d}"
        title = f"{rng.choice(JA)} {rng.choice(EN)} {file_no}"
        index, sections = [], {}
        for s in range(k):
            hints = rng.choices(vocab, weights, k=rng.randint(6, 12))
            sid = f"s{s + 1}"
            index.append({"id": sid, "title": f"{hints[0]} / {hints[1]} {s + 1}", "hints": hints})
            body = " ".join(rng.choices(vocab, weights, k=60))
            sections[sid] = f"## {hints[0]}\n\n{body}\n"
        doc = {"id": fid, "title": title, "official_doc_urls": [], "index": index, "sections": sections}
        path = os.path.join(args.out, group, fid + ".json")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, ensure_ascii=False, indent=1)
            f.write("\n")
        written += k
        file_no += 1
    print(f"{args.out}: {written} sections in {file_no} files", file=sys.stderr)


if __name__ == "__main__":
    main()

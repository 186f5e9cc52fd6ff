#!/usr/bin/env python3
"""Question latency of `kbidx search --pg` and of the file search on the synthetic corpus.

    scripts/pg-latency.py --url URL [--schema syn1m] [--index /tmp/syn1m-index/index.toon]
                          [--knowledge /tmp/syn1m] [--kbidx target/release/kbidx] [-n 100]

The questions are 「{a}の{b}で{c}したい」 with a, b, c drawn (random seed 7) from the 45 base
Japanese words of scripts/gen-synthetic.py, the same list on every machine. Each question is
timed as one `kbidx search … --format json` process (start, connection or index mapping,
tokenising, output), on each side in turn, so both see the same machine load; prints p50 and
p95 per side. `--index ''` times PostgreSQL only. The file side uses the search cache `kbidx
build` wrote (run it with the same KBIDX_CACHE_DIR): at this size the word entry only, since the
knowledge is over `body_limit`. Docs: docs/postgres.md, "Scale".
"""
import argparse
import random
import statistics
import subprocess
import time

JA = ("データベース 接続 トランザクション ページング 検索 登録 更新 削除 排他制御 楽観的ロック "
      "悲観的ロック バッチ 再実行 ログ 出力 入力 検証 バリデーション 認証 認可 セッション 画面 "
      "帳票 メッセージ 設定 環境 起動 停止 例外 エラー 処理 ファイル アップロード ダウンロード "
      "ハンドラ インターセプタ テスト 性能 キャッシュ 非同期 メール 国際化 日付 コード 採番").split()


def questions(n):
    rng = random.Random(7)
    out = []
    for _ in range(n):
        a, b, c = rng.sample(JA, 3)
        out.append(f"{a}の{b}で{c}したい")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--schema", default="syn1m")
    ap.add_argument("--index", default="/tmp/syn1m-index/index.toon")
    ap.add_argument("--knowledge", default="/tmp/syn1m")
    ap.add_argument("--kbidx", default="target/release/kbidx")
    ap.add_argument("-n", type=int, default=100)
    args = ap.parse_args()
    sides = {"pg": [args.kbidx, "search", "--pg", args.url, "--pg-schema", args.schema]}
    if args.index:
        sides["file"] = [args.kbidx, "search", "--index", args.index, "--knowledge", args.knowledge]
    times = {side: [] for side in sides}
    for q in questions(args.n):
        for side, cmd in sides.items():
            start = time.perf_counter()
            run = subprocess.run(cmd + [q, "--format", "json"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE)
            times[side].append((time.perf_counter() - start) * 1000)
            if run.returncode not in (0, 1):
                raise SystemExit(f"{side}: {run.stderr.decode()[:300]}")
    for side, ts in times.items():
        ts.sort()
        p95 = ts[min(len(ts) - 1, round(0.95 * (len(ts) - 1)))]
        print(f"{side}: n={len(ts)} p50={statistics.median(ts):.1f} ms p95={p95:.1f} ms")


if __name__ == "__main__":
    main()

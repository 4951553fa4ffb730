"""Micro-benchmark: how many MB/s of mixed note text ``tokenize`` analyses.

Generates about 5 MB of deterministic mixed text (English prose with inflections,
identifiers, paths, versions, hex ids, Spanish/German/French accents, Korean, Chinese,
Japanese) and prints the throughput. No assertions: the target (> 2 MB/s in CPython) is
read off the output.

    python benchmarks/footprint/tokenizer_speed.py [--megabytes 5] [--seed 7]

The text is tokenised as notes of 30 lines (~4 KB), the way the indexer sees a vault. The
first pass starts with an empty chunk memo ("cold"); the second reuses it ("warm"), as
re-indexing a vault does. Every line carries a fresh hex id and number, so the memo never
sees only repeats. The machine's load shows in the figure: run it twice.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

try:
    from birkin_mnemosyne import tokenizer
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from birkin_mnemosyne import tokenizer

ENGLISH = """the database restore failed after restoring the replica we restored
configuration files and configured max connections while the connection pool was
restarting deployment notes mention postgres replication lag monitoring alerts and
nightly backups running on the primary server users reported slow queries during
indexing because the vacuum process was blocking writes"""
IDENTIFIERS = """max_connections pg_hba.conf os.path.join /etc/nginx/nginx.conf
runbooks/postgres-restore.md ERR-CONN-42 ECONNREFUSED E1102 HTTP_503 0x80070005
getUserName PostgreSQL HTTPServer v1.2.3 db1:5432 ops@example.com 2026-03-02"""
EUROPEAN = """la configuración de la base de datos falló después de la restauración
die Datenbanken wurden nach dem Neustart überprüft und für gültig erklärt
le résumé de la réunion était très détaillé après la mise à jour"""
KOREAN = "데이터베이스를 복구한 후 연결 설정을 다시 확인했습니다 서버가 재시작되었습니다"
CHINESE = ["数据库恢复失败", "连接池已重启", "请检查配置文件", "备份在夜间运行"]
JAPANESE = [
    "データベースを再起動する",
    "設定ファイルを確認してください",
    "バックアップは毎晩実行されます",
]


def generate(megabytes: float, seed: int) -> str:
    """Mixed text of roughly ``megabytes`` MB (UTF-8), the same for the same seed."""
    rng = random.Random(seed)
    english, identifiers = ENGLISH.split(), IDENTIFIERS.split()
    european, korean = EUROPEAN.split(), KOREAN.split()
    target = int(megabytes * 1_000_000)
    lines: list[str] = []
    size = 0
    while size < target:
        words = rng.choices(english, k=rng.randint(8, 20))
        words += rng.choices(identifiers, k=2)
        words.append(f"{rng.getrandbits(32):08x}")  # a fresh hex id: a memo miss
        words.append(str(rng.randint(0, 99_999)))
        roll = rng.random()
        if roll < 0.15:
            words += rng.choices(european, k=8)
        elif roll < 0.25:
            words += rng.choices(korean, k=4)
        elif roll < 0.32:
            words.append(rng.choice(CHINESE) + "，" + rng.choice(CHINESE) + "。")
        elif roll < 0.38:
            words.append(rng.choice(JAPANESE) + "。")
        rng.shuffle(words)
        line = " ".join(words) + ".\n"
        lines.append(line)
        size += len(line.encode("utf-8"))
    return "".join(lines)


def measure(text: str, lines_per_note: int = 30) -> tuple[float, int]:
    """Seconds taken and terms emitted by tokenising ``text`` as notes of ~4 KB each."""
    lines = text.splitlines(keepends=True)
    notes = ["".join(lines[i : i + lines_per_note]) for i in range(0, len(lines), lines_per_note)]
    start = time.perf_counter()
    count = 0
    for note in notes:
        count += len(tokenizer.tokenize(note))
    return time.perf_counter() - start, count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=5.0, help="text size (default 5)")
    parser.add_argument("--seed", type=int, default=7, help="generator seed (default 7)")
    args = parser.parse_args(argv)

    text = generate(args.megabytes, args.seed)
    megabytes = len(text.encode("utf-8")) / 1_000_000
    tokenizer.tokenize("warm up the compiled patterns")
    tokenizer._memo.clear()
    print(f"python {sys.version.split()[0]}, {megabytes:.2f} MB of mixed text")
    for label in ("cold", "warm"):
        seconds, terms = measure(text)
        print(f"{label}: {megabytes / seconds:6.2f} MB/s  ({terms:,} terms in {seconds:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

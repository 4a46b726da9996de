#!/usr/bin/env bash
# The examples run as the README shows them. Each check is a property of the
# output (a softmax sums to one, JSON parses), not a recorded transcript.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
pass=0 fail=0
check() { # check NAME CMD... (the command must exit 0)
  local name=$1; shift
  if out=$("$@" 2>&1); then pass=$((pass + 1)); echo "ok   $name"; else fail=$((fail + 1)); echo "FAIL $name"; echo "$out" | sed 's/^/    /' | tail -20; fi
}
# The C program: its first line is a softmax; the values must sum to 1.
c_example() {
  local line; line=$("$B/native/example" | head -1) || return 1
  echo "$line" | awk -F': ' '{ n = split($2, v, " "); s = 0; for (i = 1; i <= n; i++) s += v[i]; exit (s > 0.99999 && s < 1.00001) ? 0 : 1 }'
}
check "examples/softmax.c (sums to one)" c_example
# The training program (400 seeded steps, ~0.3 s): held-out accuracy at the
# training length n = 16 at least 0.9 (0.957 with its seed 5, since the model
# of issue 35: max_retrieval has no second token table and norm gains are not
# decayed), and at n = 256 a fraction above chance, 1/8 of the 8 values
# (0.31: softmax disperses past n = 16).
c_train() {
  local out; out=$("$B/native/train") || return 1
  echo "$out" | awk '
    /^test n = 16: accuracy / { a16 = $6; n16++ }
    /^test n = 256: accuracy / { a256 = $6; n256++ }
    END { if (n16 != 1 || n256 != 1) { print "expected one test line at n = 16 and one at n = 256"; exit 1 }
          if (!(a16 >= 0.9 && a16 <= 1)) { print "accuracy at n = 16: " a16 " < 0.9"; exit 1 }
          if (!(a256 > 0.125 && a256 <= 1)) { print "accuracy at n = 256: " a256 " not in (1/8, 1]"; exit 1 } }'
}
check "examples/train.c (accuracy >= 0.9 at n = 16)" c_train
# The C API guide quotes the program's core: every line of its code block
# under "Training the tiny model", comments aside and trimmed, is a line of
# examples/train.c (so an edit of either shows here).
guide_train() {
  perl -e '
    sub lines { my $t = shift; $t =~ s{/\*.*?\*/}{}gs; map { s/^\s+|\s+$//gr } grep { /\S/ } split /\n/, $t }
    local $/; open my $g, "<", "docs/guide/c-api.md" or die; my $guide = <$g>;
    open my $c, "<", "examples/train.c" or die; my %have = map { $_ => 1 } lines(<$c>);
    $guide =~ /^## Training the tiny model\n.*?^```c\n(.*?)^```/ms or die "no c block under \"## Training the tiny model\"\n";
    my @missing = grep { !$have{$_} } lines($1);
    print "not in examples/train.c: $_\n" for @missing;
    exit(@missing ? 1 : 0);'
}
check "docs/guide/c-api.md quotes examples/train.c" guide_train
for f in examples/*.js; do
  [ -e "$f" ] || continue
  check "$f" node --no-warnings "$f"
done
for f in examples/*.sh; do
  [ -e "$f" ] || continue
  check "$f" bash "$f"
done
echo "suite examples: $pass passed, $fail failed, 0 skipped"
[ $fail -eq 0 ]

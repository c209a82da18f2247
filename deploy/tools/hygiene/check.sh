#!/usr/bin/env bash
# Fails when git tracks a built executable (ELF, Mach-O, PE, WebAssembly) or any
# file over 5 MiB; make lint runs it. Usage: check.sh [repo-dir]
set -euo pipefail
cd "${1:-.}"
git ls-files -z | perl -0 -ne '
  chomp; my $f = $_;
  next if -l $f || ! -f $f;
  my $size = -s $f;
  if ($size > 5 * 1024 * 1024) { print "tracked file over 5 MiB: $f ($size bytes)\n"; $bad = 1 }
  open(my $fh, "<:raw", $f) or next; read($fh, my $m, 4); close $fh;
  my $hex = unpack("H*", $m);
  if ($hex =~ /^(7f454c46|cffaedfe|cefaedfe|feedface|feedfacf|4d5a|0061736d)/) {
    print "tracked executable: $f (build output belongs in bin/ or dist/, which git ignores)\n"; $bad = 1
  }
  END { exit($bad ? 1 : 0) }'

;; The scorer's loops over posting lists in WebAssembly (see GroupTotals in scorer.ts, which holds
;; the same loops in JavaScript and lays out the memory). Compiled at build time by wabt's
;; wat2wasm (scripts/wat.mjs); the bytes go into the bundle.
;;
;; Memory, for $n docs: three counts (touched, about, in group) at 0, then from 16 the arrays
;; scores f64[n], best f64[n], aboutWeight f64[n], matched i32[n], stamp i32[n], the lists
;; touched i32[n], aboutDocs i32[n], inGroup i32[n], and a posting list's pairs i32[2n].
;; A doc id at or past $n (a damaged snapshot) is passed over, as JavaScript's typed arrays do.
(module
  (memory (export "m") 1)
  (global $n (mut i32) (i32.const 0))
  (global $S (mut i32) (i32.const 0))
  (global $B (mut i32) (i32.const 0))
  (global $W (mut i32) (i32.const 0))
  (global $M (mut i32) (i32.const 0))
  (global $T (mut i32) (i32.const 0))
  (global $TL (mut i32) (i32.const 0))
  (global $AL (mut i32) (i32.const 0))
  (global $GL (mut i32) (i32.const 0))
  (global $L (mut i32) (i32.const 0))

  ;; i(n): lays the arrays out for n docs (the memory must hold 16 + 52n bytes).
  (func (export "i") (param $docs i32)
    (global.set $n (local.get $docs))
    (global.set $S (i32.const 16))
    (global.set $B (i32.add (global.get $S) (i32.shl (local.get $docs) (i32.const 3))))
    (global.set $W (i32.add (global.get $B) (i32.shl (local.get $docs) (i32.const 3))))
    (global.set $M (i32.add (global.get $W) (i32.shl (local.get $docs) (i32.const 3))))
    (global.set $T (i32.add (global.get $M) (i32.shl (local.get $docs) (i32.const 2))))
    (global.set $TL (i32.add (global.get $T) (i32.shl (local.get $docs) (i32.const 2))))
    (global.set $AL (i32.add (global.get $TL) (i32.shl (local.get $docs) (i32.const 2))))
    (global.set $GL (i32.add (global.get $AL) (i32.shl (local.get $docs) (i32.const 2))))
    (global.set $L (i32.add (global.get $GL) (i32.shl (local.get $docs) (i32.const 2)))))

  ;; The doc's about weight rises to $weight; the doc joins aboutDocs when it first rises above 0
  ;; in a group, so at most once (a weight of 0 or NaN changes nothing, and adds no doc).
  (func $markAbout (param $doc i32) (param $weight f64)
    (local $at i32) (local $was f64)
    (local.set $at (i32.add (global.get $W) (i32.shl (local.get $doc) (i32.const 3))))
    (local.set $was (f64.load (local.get $at)))
    (if (f64.gt (local.get $weight) (local.get $was))
      (then
        (if (f64.eq (local.get $was) (f64.const 0))
          (then
            (i32.store (i32.add (global.get $AL) (i32.shl (i32.load (i32.const 4)) (i32.const 2))) (local.get $doc))
            (i32.store (i32.const 4) (i32.add (i32.load (i32.const 4)) (i32.const 1)))))
        (f64.store (local.get $at) (local.get $weight)))))

  ;; o(len, weight): the $len entries at L, pairs of doc and value, are one list that holds each
  ;; doc once: scores[doc] += (value >>> 1) * weight, matched[doc] += 1, the doc joins touched on
  ;; its first match, and its about weight rises when value's low bit is set.
  (func (export "o") (param $len i32) (param $weight f64)
    (local $p i32) (local $end i32) (local $doc i32) (local $v i32) (local $m i32) (local $s i32)
    (local.set $p (global.get $L))
    (local.set $end (i32.add (global.get $L) (i32.shl (i32.and (local.get $len) (i32.const -2)) (i32.const 2))))
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $doc (i32.load (local.get $p)))
        (local.set $v (i32.load offset=4 (local.get $p)))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br_if $pair (i32.ge_u (local.get $doc) (global.get $n)))
        (local.set $m (i32.add (global.get $M) (i32.shl (local.get $doc) (i32.const 2))))
        (if (i32.eqz (i32.load (local.get $m)))
          (then
            (i32.store (i32.add (global.get $TL) (i32.shl (i32.load (i32.const 0)) (i32.const 2))) (local.get $doc))
            (i32.store (i32.const 0) (i32.add (i32.load (i32.const 0)) (i32.const 1)))))
        (local.set $s (i32.add (global.get $S) (i32.shl (local.get $doc) (i32.const 3))))
        (f64.store (local.get $s)
          (f64.add (f64.load (local.get $s))
            (f64.mul (f64.convert_i32_u (i32.shr_u (local.get $v) (i32.const 1))) (local.get $weight))))
        (i32.store (local.get $m) (i32.add (i32.load (local.get $m)) (i32.const 1)))
        (if (i32.and (local.get $v) (i32.const 1))
          (then (call $markAbout (local.get $doc) (local.get $weight))))
        (br $pair))))

  ;; b(len, weight, g): one of a group's lists (g, from 1): each doc's best gain in the group so
  ;; far rises to (value >>> 1) * weight, and the doc joins inGroup the first time in the group.
  (func (export "b") (param $len i32) (param $weight f64) (param $g i32)
    (local $p i32) (local $end i32) (local $doc i32) (local $v i32) (local $t i32) (local $b i32) (local $gain f64)
    (local.set $p (global.get $L))
    (local.set $end (i32.add (global.get $L) (i32.shl (i32.and (local.get $len) (i32.const -2)) (i32.const 2))))
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $doc (i32.load (local.get $p)))
        (local.set $v (i32.load offset=4 (local.get $p)))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br_if $pair (i32.ge_u (local.get $doc) (global.get $n)))
        (local.set $gain (f64.mul (f64.convert_i32_u (i32.shr_u (local.get $v) (i32.const 1))) (local.get $weight)))
        (local.set $t (i32.add (global.get $T) (i32.shl (local.get $doc) (i32.const 2))))
        (if (i32.ne (i32.load (local.get $t)) (local.get $g))
          (then
            (i32.store (local.get $t) (local.get $g))
            (i32.store (i32.add (global.get $GL) (i32.shl (i32.load (i32.const 8)) (i32.const 2))) (local.get $doc))
            (i32.store (i32.const 8) (i32.add (i32.load (i32.const 8)) (i32.const 1)))))
        (local.set $b (i32.add (global.get $B) (i32.shl (local.get $doc) (i32.const 3))))
        (if (f64.gt (local.get $gain) (f64.load (local.get $b)))
          (then (f64.store (local.get $b) (local.get $gain))))
        (if (i32.and (local.get $v) (i32.const 1))
          (then (call $markAbout (local.get $doc) (local.get $weight))))
        (br $pair))))

  ;; f(): the group's lists are done: each doc of inGroup adds its best gain and one match, and
  ;; joins touched on its first match; inGroup is emptied.
  (func (export "f")
    (local $p i32) (local $end i32) (local $doc i32) (local $m i32) (local $s i32) (local $b i32)
    (local.set $p (global.get $GL))
    (local.set $end (i32.add (global.get $GL) (i32.shl (i32.load (i32.const 8)) (i32.const 2))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $doc (i32.load (local.get $p)))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (local.set $m (i32.add (global.get $M) (i32.shl (local.get $doc) (i32.const 2))))
        (if (i32.eqz (i32.load (local.get $m)))
          (then
            (i32.store (i32.add (global.get $TL) (i32.shl (i32.load (i32.const 0)) (i32.const 2))) (local.get $doc))
            (i32.store (i32.const 0) (i32.add (i32.load (i32.const 0)) (i32.const 1)))))
        (local.set $s (i32.add (global.get $S) (i32.shl (local.get $doc) (i32.const 3))))
        (local.set $b (i32.add (global.get $B) (i32.shl (local.get $doc) (i32.const 3))))
        (f64.store (local.get $s) (f64.add (f64.load (local.get $s)) (f64.load (local.get $b))))
        (i32.store (local.get $m) (i32.add (i32.load (local.get $m)) (i32.const 1)))
        (f64.store (local.get $b) (f64.const 0))
        (br $each)))
    (i32.store (i32.const 8) (i32.const 0)))

  ;; c(minMatched, minScore) → count: the touched docs with at least minMatched matches and a
  ;; score of at least minScore, written in touched order to inGroup's place.
  (func (export "c") (param $minMatched i32) (param $minScore f64) (result i32)
    (local $p i32) (local $end i32) (local $doc i32) (local $c i32)
    (local.set $p (global.get $TL))
    (local.set $end (i32.add (global.get $TL) (i32.shl (i32.load (i32.const 0)) (i32.const 2))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $doc (i32.load (local.get $p)))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (br_if $each (i32.lt_s (i32.load (i32.add (global.get $M) (i32.shl (local.get $doc) (i32.const 2)))) (local.get $minMatched)))
        (br_if $each (i32.eqz (f64.ge (f64.load (i32.add (global.get $S) (i32.shl (local.get $doc) (i32.const 3)))) (local.get $minScore))))
        (i32.store (i32.add (global.get $GL) (i32.shl (local.get $c) (i32.const 2))) (local.get $doc))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br $each)))
    (local.get $c)))

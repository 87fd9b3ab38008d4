;; The search over the cards' vectors in WebAssembly (see nearest.ts, which holds the same search
;; in JavaScript and lays out the memory). Compiled at build time by wabt's wat2wasm
;; (scripts/wat.mjs); the bytes go into the bundle.
(module
  (memory (export "m") 1)

  ;; For each piece p of $n: D[p] = the count of its sign bits that differ from the query's (the
  ;; $longs 64-bit words at 0; the pieces' from $B on), and H[D[p]] += 1.
  (func (export "a") (param $n i32) (param $longs i32) (param $B i32) (param $D i32) (param $H i32)
    (local $p i32) (local $k i32) (local $diff i32) (local $w i32) (local $q i32) (local $t i32)
    (local.set $w (local.get $B))
    (block $pieces_done
      (loop $piece
        (br_if $pieces_done (i32.ge_u (local.get $p) (local.get $n)))
        (local.set $diff (i32.const 0))
        (local.set $k (i32.const 0))
        (local.set $q (i32.const 0))
        (block $words_done
          (loop $word
            (br_if $words_done (i32.ge_u (local.get $k) (local.get $longs)))
            (local.set $diff
              (i32.add (local.get $diff)
                (i32.wrap_i64 (i64.popcnt (i64.xor (i64.load (local.get $w)) (i64.load (local.get $q)))))))
            (local.set $w (i32.add (local.get $w) (i32.const 8)))
            (local.set $q (i32.add (local.get $q) (i32.const 8)))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $word)))
        (i32.store (i32.add (local.get $D) (i32.shl (local.get $p) (i32.const 2))) (local.get $diff))
        (local.set $t (i32.add (local.get $H) (i32.shl (local.get $diff) (i32.const 2))))
        (i32.store (local.get $t) (i32.add (i32.load (local.get $t)) (i32.const 1)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $piece))))

  ;; P[c++] = p for each piece of $n with D[p] < $cut, then each with D[p] = $cut, at most $max in
  ;; all; returns c.
  (func (export "p") (param $n i32) (param $cut i32) (param $max i32) (param $D i32) (param $P i32) (result i32)
    (local $p i32) (local $c i32)
    (block $under_done
      (loop $under
        (br_if $under_done (i32.ge_u (local.get $p) (local.get $n)))
        (br_if $under_done (i32.ge_u (local.get $c) (local.get $max)))
        (if (i32.lt_u (i32.load (i32.add (local.get $D) (i32.shl (local.get $p) (i32.const 2)))) (local.get $cut))
          (then
            (i32.store (i32.add (local.get $P) (i32.shl (local.get $c) (i32.const 2))) (local.get $p))
            (local.set $c (i32.add (local.get $c) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $under)))
    (local.set $p (i32.const 0))
    (block $at_done
      (loop $at
        (br_if $at_done (i32.ge_u (local.get $p) (local.get $n)))
        (br_if $at_done (i32.ge_u (local.get $c) (local.get $max)))
        (if (i32.eq (i32.load (i32.add (local.get $D) (i32.shl (local.get $p) (i32.const 2)))) (local.get $cut))
          (then
            (i32.store (i32.add (local.get $P) (i32.shl (local.get $c) (i32.const 2))) (local.get $p))
            (local.set $c (i32.add (local.get $c) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $at)))
    (local.get $c))

  ;; O[r] = the sum over i of the int8 row r (rows of $dim bytes from $R) times the f32 query at
  ;; $F, for each r of $c; added in f64, as JavaScript adds them, so the two searches agree.
  (func (export "d") (param $c i32) (param $dim i32) (param $R i32) (param $F i32) (param $O i32)
    (local $r i32) (local $i i32) (local $row i32) (local $acc f64)
    (local.set $row (local.get $R))
    (block $rows_done
      (loop $each_row
        (br_if $rows_done (i32.ge_u (local.get $r) (local.get $c)))
        (local.set $acc (f64.const 0))
        (local.set $i (i32.const 0))
        (block $dims_done
          (loop $dim_step
            (br_if $dims_done (i32.ge_u (local.get $i) (local.get $dim)))
            (local.set $acc
              (f64.add (local.get $acc)
                (f64.mul
                  (f64.convert_i32_s (i32.load8_s (i32.add (local.get $row) (local.get $i))))
                  (f64.promote_f32 (f32.load (i32.add (local.get $F) (i32.shl (local.get $i) (i32.const 2))))))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $dim_step)))
        (f64.store (i32.add (local.get $O) (i32.shl (local.get $r) (i32.const 3))) (local.get $acc))
        (local.set $row (i32.add (local.get $row) (local.get $dim)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $each_row)))))

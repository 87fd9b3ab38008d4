;; h(n): the FNV-1a of memory[0, n) as fnv1aWords computes it (hash.ts): 32-bit little-endian
;; words, then the last bytes one by one. Compiled at build time by wabt's wat2wasm (scripts/wat.mjs).
(module
  (memory (export "m") 1)
  (func (export "h") (param $n i32) (result i32)
    (local $h i32) (local $i i32) (local $w i32)
    (local.set $h (i32.const 0x811c9dc5))
    (local.set $w (i32.and (local.get $n) (i32.const -4)))
    (block $words_done
      (loop $word
        (br_if $words_done (i32.ge_u (local.get $i) (local.get $w)))
        (local.set $h (i32.mul (i32.xor (local.get $h) (i32.load (local.get $i))) (i32.const 0x01000193)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $word)))
    (block $bytes_done
      (loop $byte
        (br_if $bytes_done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $h (i32.mul (i32.xor (local.get $h) (i32.load8_u (local.get $i))) (i32.const 0x01000193)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $byte)))
    (local.get $h)))

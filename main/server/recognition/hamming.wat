;; The two nearest reference descriptors of each query descriptor by Hamming distance, and Lowe's ratio
;; test on them (identification/hamming.ts says why this is WebAssembly: i64.popcnt). Descriptors are
;; 32 bytes (ORB, 256 bits), packed one after another in this module's memory.
;; Built into hamming.wasm by `npm run build:wasm` (wabt's wat2wasm); a test checks the two agree.
(module
  (memory (export "memory") 1)
  ;; For each query i (of nq at q) whose nearest reference (of nr at r) is closer than ratio times the
  ;; second nearest: the pair (i, index of the nearest) as two i32 at out. Returns how many pairs.
  ;; A tie for the nearest fails the test (best == second), as with OpenCV's knnMatch.
  (func (export "ratioMatches")
    (param $q i32) (param $nq i32) (param $r i32) (param $nr i32) (param $out i32) (param $ratio f64)
    (result i32)
    (local $i i32) (local $p i32) (local $end i32) (local $d i32) (local $best i32) (local $second i32)
    (local $bi i32) (local $found i32) (local $qp i32)
    (local $qa i64) (local $qb i64) (local $qc i64) (local $qd i64)
    (block $queries_done
      (loop $query
        (br_if $queries_done (i32.ge_u (local.get $i) (local.get $nq)))
        (local.set $qp (i32.add (local.get $q) (i32.shl (local.get $i) (i32.const 5))))
        (local.set $qa (i64.load (local.get $qp)))
        (local.set $qb (i64.load offset=8 (local.get $qp)))
        (local.set $qc (i64.load offset=16 (local.get $qp)))
        (local.set $qd (i64.load offset=24 (local.get $qp)))
        ;; 257: farther than any distance (256 bits), "no neighbour yet"
        (local.set $second (local.tee $best (i32.const 257)))
        (local.set $bi (i32.const 0))
        (local.set $end (i32.add (local.tee $p (local.get $r)) (i32.shl (local.get $nr) (i32.const 5))))
        (block $refs_done
          (loop $ref
            (br_if $refs_done (i32.ge_u (local.get $p) (local.get $end)))
            ;; Half the bits first: if they already reach the second nearest, this reference can be
            ;; neither of the two nearest, and the other half is not counted.
            (if (i32.lt_u
                  (local.tee $d (i32.wrap_i64 (i64.add
                    (i64.popcnt (i64.xor (local.get $qa) (i64.load (local.get $p))))
                    (i64.popcnt (i64.xor (local.get $qb) (i64.load offset=8 (local.get $p)))))))
                  (local.get $second))
              (then
                (if (i32.lt_u
                      (local.tee $d (i32.add (local.get $d) (i32.wrap_i64 (i64.add
                        (i64.popcnt (i64.xor (local.get $qc) (i64.load offset=16 (local.get $p))))
                        (i64.popcnt (i64.xor (local.get $qd) (i64.load offset=24 (local.get $p))))))))
                      (local.get $best))
                  (then
                    (local.set $second (local.get $best))
                    (local.set $best (local.get $d))
                    (local.set $bi (i32.shr_u (i32.sub (local.get $p) (local.get $r)) (i32.const 5))))
                  (else
                    (if (i32.lt_u (local.get $d) (local.get $second))
                      (then (local.set $second (local.get $d))))))))
            (local.set $p (i32.add (local.get $p) (i32.const 32)))
            (br $ref)))
        (if (f64.lt (f64.convert_i32_u (local.get $best))
                    (f64.mul (local.get $ratio) (f64.convert_i32_u (local.get $second))))
          (then
            (i32.store (local.tee $qp (i32.add (local.get $out) (i32.shl (local.get $found) (i32.const 3))))
                       (local.get $i))
            (i32.store offset=4 (local.get $qp) (local.get $bi))
            (local.set $found (i32.add (local.get $found) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $query)))
    (local.get $found)))

; A function returning a reference carries `align 4` as a return
; attribute, which the IR reader cannot parse unless it is dropped.
@g = global [4 x i32] [i32 1, i32 2, i32 3, i32 4], align 16

define dso_local noundef nonnull align 4 dereferenceable(4) i32* @at(i64 %i) {
  %p = getelementptr inbounds [4 x i32], [4 x i32]* @g, i64 0, i64 %i
  ret i32* %p
}

define dso_local i32 @main() {
  %p = call noundef nonnull align 4 dereferenceable(4) i32* @at(i64 2)
  %v = load i32, i32* %p, align 4
  ret i32 %v
}

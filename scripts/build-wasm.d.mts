/** The .wasm bytes a .wat file assembles to (wabt's wat2wasm). */
export function assemble(watPath: string): Promise<Buffer>;

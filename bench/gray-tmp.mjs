import sharp from 'sharp';
const W = 4050, H = 3034;
const data = Buffer.alloc(W * H * 3); for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24;
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
for (const [label, px, kernel, greyFirst] of [['lanczos 640k', 640000, 'lanczos3'], ['linear 640k', 640000, 'linear'], ['cubic 640k', 640000, 'cubic'], ['mitchell 640k', 640000, 'mitchell'], ['linear 480k', 480000, 'linear'], ['lanczos 480k', 480000, 'lanczos3']]) {
  const ts = [];
  for (let r = 0; r < 4; r++) {
    const c0 = cpu();
    const s = Math.sqrt(px / (W * H));
    await sharp(data, { raw: { width: W, height: H, channels: 3 } }).resize(Math.round(W * s), Math.round(H * s), { kernel }).grayscale().raw().toBuffer();
    ts.push(cpu() - c0);
  }
  console.log(label, ts.map((t) => t.toFixed(0)).join(' '));
}
function boxGray(data, W, H, f) {
  const gw = Math.floor(W / f), gh = Math.floor(H / f);
  const out = new Uint8Array(gw * gh);
  const acc = new Uint32Array(gw);
  const n = f * f * 256;
  for (let gy = 0; gy < gh; gy++) {
    acc.fill(0);
    for (let dy = 0; dy < f; dy++) {
      let i = ((gy * f + dy) * W) * 3;
      for (let gx = 0; gx < gw; gx++) {
        let s = 0;
        for (let dx = 0; dx < f; dx++, i += 3) s += data[i] * 77 + data[i + 1] * 150 + data[i + 2] * 29;
        acc[gx] += s;
      }
    }
    for (let gx = 0; gx < gw; gx++) out[gy * gw + gx] = (acc[gx] + n / 2) / n;
  }
  return { gray: out, gw, gh };
}
for (const f of [4, 5]) {
  const ts = [];
  for (let r = 0; r < 4; r++) { const c0 = cpu(); boxGray(data, W, H, f); ts.push(cpu() - c0); }
  console.log('box', f, ts.map((t) => t.toFixed(0)).join(' '));
}

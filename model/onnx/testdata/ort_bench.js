// Network evaluations per second of onnxruntime for Node on an exported
// model, one line per batch size, for cmd/PERFORMANCE.md:
//
//   npm install --ignore-scripts onnxruntime-node@1.30.0   (in a temporary folder)
//   NODE_PATH=FOLDER/node_modules node ort_bench.js MODEL.onnx SECONDS THREADS BATCH...
//
// THREADS is onnxruntime's intra-op threads, 0 for its default (one per
// core). The inputs are fixed 0/1 planes and a mask of ones: the speed of
// the dense network does not depend on them.
const ort = require('onnxruntime-node');
const [file, seconds, threads, ...batches] = process.argv.slice(2);
(async () => {
  const opts = threads === '0' ? {} : { intraOpNumThreads: +threads, interOpNumThreads: 1 };
  const session = await ort.InferenceSession.create(file, opts);
  for (const b of batches.map(Number)) {
    const obs = new Float32Array(b * 21 * 36).map((_, i) => (i * 2654435761 >>> 28) & 1);
    const feeds = {
      observation: new ort.Tensor('float32', obs, [b, 21, 6, 6]),
      action_mask: new ort.Tensor('uint8', new Uint8Array(b * 6912).fill(1), [b, 6912]),
    };
    for (let i = 0; i < 10; i++) await session.run(feeds); // warm-up
    let n = 0, elapsed = 0;
    const start = process.hrtime.bigint();
    while (elapsed < +seconds) {
      await session.run(feeds);
      n += b;
      elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    }
    console.log(`onnxruntime threads=${threads === '0' ? 'default' : threads} batch=${b} evals/s=${(n / elapsed).toFixed(0)}`);
  }
})().catch(e => { console.error(e); process.exit(1); });

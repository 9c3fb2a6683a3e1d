// Runs an exported model in onnxruntime for Node on inputs in files, for
// the parity test (onnx_test.go, TestParityWithGo, with DEATHSTACKS_ORT):
//
//   node ort_run.js DIR
//
// DIR holds net.onnx, obs.f32 (n observations, float32 little-endian) and
// mask.u8 (n masks of 6912 bytes); the script writes logits.f32 and
// values.f32 there. onnxruntime runs with its default options.
const ort = require('onnxruntime-node');
const fs = require('fs');
const path = require('path');
const dir = process.argv[2];
(async () => {
  const session = await ort.InferenceSession.create(path.join(dir, 'net.onnx'));
  const obs = fs.readFileSync(path.join(dir, 'obs.f32'));
  const mask = fs.readFileSync(path.join(dir, 'mask.u8'));
  const n = mask.length / 6912;
  const out = await session.run({
    observation: new ort.Tensor('float32', new Float32Array(obs.buffer, obs.byteOffset, obs.length / 4), [n, 21, 6, 6]),
    action_mask: new ort.Tensor('uint8', new Uint8Array(mask.buffer, mask.byteOffset, mask.length), [n, 6912]),
  });
  fs.writeFileSync(path.join(dir, 'logits.f32'), out.logits.data);
  fs.writeFileSync(path.join(dir, 'values.f32'), out.value.data);
})().catch(e => { console.error(e); process.exit(1); });

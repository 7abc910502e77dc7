// The key/value metadata an ONNX model file carries (ModelProto.metadata_props), where the export scripts
// record what belongs to the weights: how they were trained and, for the shelf detector, the score cut chosen
// with them. onnxruntime-node does not expose these entries, so the file is decoded with a schema of just that
// field; protobufjs skips everything else (the graph, the weights) by its length prefix.
import { readFile } from 'node:fs/promises';
import protobuf from 'protobufjs';

const Entry = new protobuf.Type('StringStringEntryProto')
  .add(new protobuf.Field('key', 1, 'string'))
  .add(new protobuf.Field('value', 2, 'string'));
const Model = new protobuf.Type('ModelProto').add(new protobuf.Field('metadataProps', 14, 'StringStringEntryProto', 'repeated'));
new protobuf.Root().add(Entry).add(Model);

/** The metadata entries of an ONNX model's bytes. Throws if they are not a protobuf message. */
export function modelMetadata(bytes: Uint8Array): Record<string, string> {
  const message = Model.decode(bytes) as unknown as { metadataProps?: { key?: string; value?: string }[] };
  const out: Record<string, string> = {};
  for (const { key, value } of message.metadataProps ?? []) if (key) out[key] = value ?? '';
  return out;
}

/** The metadata entries of the ONNX model at `file`. Rejects if the file cannot be read or is not a protobuf. */
export async function readModelMetadata(file: string): Promise<Record<string, string>> {
  return modelMetadata(await readFile(file));
}

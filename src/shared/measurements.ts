/**
 * Assemble a measurements answer from the build's serialised records: the provider's head,
 * then per model its head and the slice of records from the first day on or after
 * `startDay`, then the tail. Byte slicing and concatenation only; no record is serialised.
 */

/** Where each model's records sit in the blob, by day. */
export interface MeasurementIndex {
  head: string;
  tail: string;
  models: { head: string; days: string[]; offsets: number[]; end: number }[];
}

export function assembleMeasurements(index: MeasurementIndex, data: Buffer, startDay: string): Buffer {
  const parts: Buffer[] = [Buffer.from(index.head)];
  index.models.forEach((model, i) => {
    parts.push(Buffer.from(`${i === 0 ? '' : ','}${model.head}`));
    const first = model.days.findIndex((day) => day >= startDay);
    if (first >= 0) parts.push(data.subarray(model.offsets[first], model.end));
    parts.push(Buffer.from(']}'));
  });
  parts.push(Buffer.from(index.tail));
  return Buffer.concat(parts);
}

/** A large random positive serial (16 bytes, top bit cleared), unlike the controller's tiny ones. */
export function randomSerial(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] &= 0x7f;
  if (bytes[0] === 0) bytes[0] = 1;
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

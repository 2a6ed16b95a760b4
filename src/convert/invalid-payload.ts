/** An upstream answer that parsed as JSON but does not have the expected shape. */
export class InvalidPayloadError extends Error {
  override name = "InvalidPayloadError";
}

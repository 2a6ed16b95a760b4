// The socket writes Go's net/http makes for one answer of a Prometheus API handler, so the benchmark's
// upstream puts the same bytes on the wire in the same pieces (go1.19-go1.24 src/net/http/server.go):
// - The response's own buffer holds 2048 bytes (bufferBeforeChunkingSize). An answer that fits when the
//   handler returns gets a Content-Length; a larger one is sent chunked, each flush of that buffer (or a
//   Write that bypasses it) one chunk.
// - Below it, the connection's buffer holds 4 KiB (newBufioWriterSize(..., 4<<10)): the socket is
//   written 4096 bytes at a time, except for a Write larger than what is free there, which after filling
//   and flushing the buffer goes to the socket whole.
// Prometheus's api.go `respond` encodes an answer whole and writes it in one Write; its gzip writer
// (util/httputil/compression.go) hands on compressed bytes a few hundred at a time as it makes them.
// So a large plain answer is one chunk written nearly whole at once, and a gzip one many 2048-byte
// chunks leaving in 4096-byte writes. Measured on Debian's Prometheus 2.42 (50k targets, 0.8 MB gzip):
// the reader got 4096 bytes a read, ~170 reads, spread over ~115 ms.

const RESPONSE_BUFFER = 2048;
const CONNECTION_BUFFER = 4096;

/** What one answer is: its status line's code and text, its headers (Date and framing added), its body. */
export interface GoAnswer {
  status: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The handler writes the body in one Write (plain), or its gzip writer in many small ones. */
  gzip: boolean;
}

/** The socket writes of one answer, in order. */
export function goWrites({ status, headers, body, gzip }: GoAnswer, date = new Date()): Buffer[] {
  const whole = body.length <= RESPONSE_BUFFER;
  // The handler's fields sorted (Header.WriteSubset), then Date and the framing (as 2.42 sent them).
  const fields = Object.keys(headers)
    .sort()
    .map((name) => `${name}: ${headers[name]}\r\n`);
  fields.push(`Date: ${date.toUTCString()}\r\n`);
  fields.push(whole ? `Content-Length: ${body.length}\r\n` : "Transfer-Encoding: chunked\r\n");
  const head = `HTTP/1.1 ${status}\r\n${fields.join("")}\r\n`;
  const connection = new ConnectionBuffer();
  connection.write(Buffer.from(head, "latin1"));
  if (whole) {
    connection.write(body);
  } else if (!gzip) {
    connection.write(chunkHeader(body.length));
    connection.write(body);
    connection.write(CRLF);
  } else {
    for (let at = 0; at < body.length; at += RESPONSE_BUFFER) {
      const chunk = body.subarray(at, at + RESPONSE_BUFFER);
      connection.write(chunkHeader(chunk.length));
      connection.write(chunk);
      connection.write(CRLF);
    }
  }
  if (!whole) connection.write(Buffer.from("0\r\n\r\n", "latin1"));
  return connection.flush();
}

const CRLF = Buffer.from("\r\n", "latin1");
const chunkHeader = (bytes: number) => Buffer.from(`${bytes.toString(16)}\r\n`, "latin1");

/** bufio.Writer over the socket: what reaches the socket, write by write. */
class ConnectionBuffer {
  private readonly buffer = Buffer.allocUnsafe(CONNECTION_BUFFER);
  private used = 0;
  private readonly writes: Buffer[] = [];

  write(bytes: Buffer): void {
    let rest = bytes;
    while (rest.length > CONNECTION_BUFFER - this.used) {
      if (this.used === 0) {
        this.writes.push(rest); // nothing buffered: written to the socket as it is
        return;
      }
      const fits = CONNECTION_BUFFER - this.used;
      rest.copy(this.buffer, this.used, 0, fits);
      this.used += fits;
      rest = rest.subarray(fits);
      this.flushBuffer();
    }
    rest.copy(this.buffer, this.used);
    this.used += rest.length;
  }

  /** The writes so far, the buffer's last bytes included (the handler returned). */
  flush(): Buffer[] {
    if (this.used > 0) this.flushBuffer();
    return this.writes;
  }

  private flushBuffer(): void {
    this.writes.push(Buffer.from(this.buffer.subarray(0, this.used)));
    this.used = 0;
  }
}

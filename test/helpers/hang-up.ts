import { get } from "node:http";

/** A plain GET whose client hangs up as soon as the first bytes of the body came. */
export function hangUpAfterFirstBytes(url: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const req = get(url, { headers: { "accept-encoding": "identity" } }, (res) => {
      res.once("data", () => {
        req.destroy();
        resolve();
      });
    });
    req.on("error", (error) => (req.destroyed ? undefined : reject(error)));
  });
}

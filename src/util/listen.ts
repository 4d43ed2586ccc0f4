// Binding a server to its port, with one plain message naming the setting to change when the port
// is taken: the usual reason a second `npm start` fails.
import type { Server } from "node:net";

/** The port could not be bound; `message` is one line for people, naming `setting`. */
export class PortUnavailableError extends Error {
  constructor(
    readonly setting: string,
    readonly port: number,
    readonly host: string,
    readonly code: "EADDRINUSE" | "EACCES",
  ) {
    super(
      code === "EADDRINUSE"
        ? `Port ${port} on ${host} is already in use (is another copy running?): set ${setting} to a free port, or 0 for any free one.`
        : `Port ${port} on ${host} needs privileges this process lacks: set ${setting} to a port above 1023, or 0 for any free one.`,
    );
    this.name = "PortUnavailableError";
  }
}

/** `server.listen(port, host)`, rejecting with PortUnavailableError when the port is taken or refused. */
export function listenOn(server: Server, port: number, host: string, setting: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(
        err.code === "EADDRINUSE" || err.code === "EACCES"
          ? new PortUnavailableError(setting, port, host, err.code)
          : err,
      );
    };
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

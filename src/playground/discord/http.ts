// HTTP plumbing of the local Discord: body parsing (JSON and multipart uploads) and JSON answers.
import type { IncomingMessage, ServerResponse } from "node:http";
import { DiscordApiFailure } from "./validation.ts";

export interface UploadedFile {
  /** Form field name, e.g. "files[0]". */
  readonly name: string;
  readonly filename: string;
  readonly contentType: string | undefined;
  readonly data: Buffer;
}

export interface ParsedBody {
  readonly json: unknown;
  readonly files: readonly UploadedFile[];
  readonly raw: Buffer;
}

export interface RestResult {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

export async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Parses JSON bodies and multipart bodies (`payload_json` + `files[n]`, as @discordjs/rest sends files). */
export async function parseBody(contentType: string | undefined, raw: Buffer): Promise<ParsedBody> {
  if (raw.length === 0) return { json: undefined, files: [], raw };
  if (contentType?.startsWith("multipart/form-data")) {
    // Node's fetch Request parses multipart for us: no hand-written boundary parsing.
    const form = await new Request("http://double.local/", {
      method: "POST",
      headers: { "content-type": contentType },
      body: raw,
    }).formData();
    let json: unknown;
    const files: UploadedFile[] = [];
    for (const [name, value] of form.entries()) {
      if (typeof value === "string") {
        if (name === "payload_json") json = parseJson(value);
        continue;
      }
      files.push({
        name,
        filename: value.name,
        contentType: value.type === "" ? undefined : value.type,
        data: Buffer.from(await value.arrayBuffer()),
      });
    }
    return { json, files, raw };
  }
  return { json: parseJson(raw.toString("utf8")), files: [], raw };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new DiscordApiFailure(400, 50109, "The request body contains invalid JSON.");
  }
}

export function send(res: ServerResponse, result: RestResult): void {
  const headers: Record<string, string> = { ...result.headers };
  if (result.body === undefined || result.status === 204) {
    res.writeHead(result.status === 200 ? 204 : result.status, headers);
    res.end();
    return;
  }
  if (Buffer.isBuffer(result.body)) {
    res.writeHead(result.status, headers);
    res.end(result.body);
    return;
  }
  const text = JSON.stringify(result.body);
  res.writeHead(result.status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function failureResult(error: DiscordApiFailure): RestResult {
  return {
    status: error.status,
    body: {
      message: error.message,
      code: error.code,
      ...(error.errors === undefined ? {} : { errors: error.errors }),
      ...error.extra,
    },
    ...(error.headers ? { headers: error.headers } : {}),
  };
}

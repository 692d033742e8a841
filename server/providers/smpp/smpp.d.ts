// The parts of the `smpp` package (no published types) this project uses.
declare module "smpp" {
  import { EventEmitter } from "node:events";
  import type { Server as NetServer, Socket } from "node:net";

  export interface PDU {
    command: string;
    command_status: number;
    sequence_number: number;
    [field: string]: unknown;
    response(fields?: Record<string, unknown>): PDU;
    isResponse(): boolean;
    toBuffer(): Buffer;
  }

  export const PDU: {
    /** A PDU to send (a command name), or one parsed from a whole PDU's bytes (throws when it cannot be). */
    new (command: string | Buffer, fields?: Record<string, unknown>): PDU;
    maxLength: number;
  };

  export class Session extends EventEmitter {
    constructor(options: { host?: string; port?: number; socket?: Socket });
    socket: Socket;
    sequence: number;
    paused: boolean;
    /** Response callbacks by sequence_number. */
    _callbacks: Record<number, (pdu: PDU) => void>;
    /** The package's PDU reader, bound to the socket's "readable" event by the constructor. */
    _extractPDUs(): void;
    send(pdu: PDU, callback?: (pdu: PDU) => void, sendCallback?: (pdu: PDU, error?: Error) => void): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    bind_transceiver(fields: Record<string, unknown>, callback: (pdu: PDU) => void): void;
    submit_sm(fields: Record<string, unknown>, callback: (pdu: PDU) => void): void;
    deliver_sm(fields: Record<string, unknown>, callback?: (pdu: PDU) => void): void;
    unbind(fields?: Record<string, unknown>, callback?: (pdu: PDU) => void): boolean;
    enquire_link(fields?: Record<string, unknown>, callback?: (pdu: PDU) => void): void;
    pause(): void;
    resume(): void;
  }

  export class Server extends NetServer {
    sessions: Session[];
  }

  export function connect(options: { url: string; auto_enquire_link_period?: number }, listener?: () => void): Session;
  export function createServer(listener: (session: Session) => void): Server;
  export const errors: Record<string, number>;
  export const encodings: Record<string, { encode(value: string): Buffer; decode(value: Buffer): string }>;
}

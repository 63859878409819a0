/** Loopback networking: stream sockets bound to ports on 127.0.0.1, connected in pairs. */
import type { Machine } from './machine';
import type { Task } from './task';
import { Pipe } from './pipe';

export class Sock {
  port = 0;
  listening = false;
  backlog: Sock[] = [];
  acceptWait: Task[] = [];
  peer: Sock | null = null;
  /** bytes arriving at this socket */
  rx = new Pipe();
  closed = false;
  constructor(readonly type: number) {}
}

export class Net {
  readonly listeners = new Map<number, Sock>();
  packets = 0;
  bytes = 0;
  constructor(readonly m: Machine) {}
}

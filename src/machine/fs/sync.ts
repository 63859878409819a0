/** sync(2) (fs/sync.c): write back every dirty inode (mm/page_writeback.ts), then return. */
import type { FsMachine } from './namei';
import { Semantics } from '../paths/semantics';
import { pushPath, H_CONT, H_AGAIN } from '../paths/kexec';

export const fsSync = new Semantics<FsMachine>('fs/sync');

fsSync.syscall('sync', (m, c, t, e) => {
  if (!e.synced) {
    e.synced = true;
    pushPath(t.ks, 'writeback_issue', e);
    return H_AGAIN;
  }
  e.ret = 0;
  return H_CONT;
});

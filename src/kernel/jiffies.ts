/**
 * kernel/time/jiffies.c: the tick counter. jiffies starts at INITIAL_JIFFIES, 300 s worth of ticks
 * before its 32-bit wrap (include/linux/jiffies.h: `((unsigned long)(unsigned int) (-300*HZ))`, so
 * wrap bugs show early), and counts HZ per second of uptime.
 */
import { kernelHz } from './config';

/** INITIAL_JIFFIES for the kernel's HZ (250 on Debian's 6.1: 4294892296). */
export function initialJiffies(): number {
  return 2 ** 32 - 300 * kernelHz();
}

/** jiffies (= jiffies_64 on x86_64) after `uptimeNs` of uptime. */
export function jiffiesAt(uptimeNs: number): number {
  return initialJiffies() + Math.floor(uptimeNs / (1e9 / kernelHz()));
}

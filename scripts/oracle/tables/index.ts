/** The oracle tables, in recording order. */
import type { Table } from '../cases';
import { parse } from './parse';
import { operators } from './operators';
import { semantics } from './semantics';
import { warnings } from './warnings';
import { compatible } from './compatible';
import { formats } from './formats';
import { probes } from './probes';
import { library } from './library';
import { corners } from './corners';
import { leftovers } from './leftovers';
import { cascades } from './cascades';
import { lvalues } from './lvalues';
import { suggest } from './suggest';
import { sweep } from './sweep';

export const TABLES: Table[] = [parse, semantics, warnings, compatible, probes, formats, operators, library, corners, leftovers, cascades, lvalues, suggest, sweep];

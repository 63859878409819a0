import './core';
import './sys';
import './mm';
import './net';
export * from '../dsl';

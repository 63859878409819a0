import './core';
import './sys';
import './mm';
export * from './dsl';

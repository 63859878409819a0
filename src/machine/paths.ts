/** Loads every kernel path template (see paths/). */
import './paths/index';

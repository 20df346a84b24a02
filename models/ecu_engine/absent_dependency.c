/* A library the engine variant ecu_engine_missing_dependency is linked
 * against and that is absent where it is loaded (see CMakeLists.txt). */
int ecu_absent_dependency(void);
int ecu_absent_dependency(void) { return 0; }

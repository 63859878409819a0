/** The page size (arch/x86/include/asm/page_types.h): 4 KiB, PAGE_SHIFT 12; a leaf that every include/ header may import. */
export const PAGE_SIZE = 4096;

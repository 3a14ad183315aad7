// pores.csv, throats.csv, network.json and network.vtp (see network_writers.hpp). Each file's rows
// are formatted in chunks on all cores and the file is written in one go (text_output.hpp).
#include <cmath>
#include <string>
#include <vector>

#include "pnm/network_writers.hpp"
#include "pnm/text_output.hpp"

namespace gp::pnm {
namespace {

void write_csv(const std::string& path, const std::vector<Property>& props, std::size_t count) {
  TextBuffer header;
  bool first = true;
  for (const Property& p : props)
    for (int c = 0; c < p.components; ++c) {
      if (!first) header << ',';
      first = false;
      header << p.name;
      if (p.components > 1) header << '[' << std::to_string(c) << ']';
    }
  header << '\n';
  write_text_file(path, [&](TextWriter& text) {
    text << header;
    text.rows(count, [&](TextBuffer& out, std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        bool first_cell = true;
        for (const Property& p : props)
          for (int c = 0; c < p.components; ++c) {
            if (!first_cell) out << ',';
            first_cell = false;
            const double v = p.at(i, c);
            switch (p.kind) {
              case PropertyKind::real: out.real(v); break;
              case PropertyKind::integer: out.integer((long long)v); break;
              case PropertyKind::boolean: out << (v != 0 ? "True" : "False"); break;
            }
          }
        out << '\n';
      }
    });
  });
}

void json_value(TextBuffer& out, const Property& p, double v) {
  switch (p.kind) {
    case PropertyKind::real:
      if (std::isfinite(v))
        out.real(v);
      else
        out << "null";
      break;
    case PropertyKind::integer: out.integer((long long)v); break;
    case PropertyKind::boolean: out << (v != 0 ? "true" : "false"); break;
  }
}

void json_property(TextWriter& text, const Property& p, std::size_t count) {
  text << ",\n\"" + p.name + "\": [";
  text.rows(count, [&](TextBuffer& out, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      if (i > 0) out << ',';
      if (p.components == 1) {
        json_value(out, p, p.at(i));
      } else {
        out << '[';
        for (int c = 0; c < p.components; ++c) {
          if (c > 0) out << ',';
          json_value(out, p, p.at(i, c));
        }
        out << ']';
      }
    }
  });
  text << "]";
}

// A DataArray of `count` tuples after `leading_zeros` tuples of 0 (throat arrays' vertex cells).
void vtk_array(TextWriter& text, const Property& p, std::size_t count, std::size_t leading_zeros) {
  const char* type = p.kind == PropertyKind::real ? "Float64" : p.kind == PropertyKind::integer ? "Int64" : "UInt8";
  text << "        <DataArray type=\"" + std::string(type) + "\" Name=\"" + p.name + "\" NumberOfComponents=\"" +
              std::to_string(p.components) + "\" format=\"ascii\">\n";
  const std::size_t zeros = leading_zeros * std::size_t(p.components);
  text.rows(zeros, [](TextBuffer& out, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) out << (i % 16 == 15 ? "0\n" : "0 ");
  }, 65536);
  if (leading_zeros > 0) text << "\n";
  text.rows(count, [&](TextBuffer& out, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      for (int c = 0; c < p.components; ++c) {
        const double v = p.at(i, c);
        if (p.kind == PropertyKind::real)
          out.real(std::isfinite(v) ? v : 0.0);  // VTK's ASCII parser reads no nan/inf
        else
          out.integer((long long)v);
        out << ' ';
      }
      if (i % 8 == 7 || i + 1 == count) out << '\n';
    }
  });
  text << "        </DataArray>\n";
}

template <class Value>
void vtk_index_array(TextWriter& text, const char* name, std::size_t n, const Value& value) {
  text << "        <DataArray type=\"Int64\" Name=\"" + std::string(name) + "\" format=\"ascii\">\n";
  text.rows(n, [&](TextBuffer& out, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      out.integer(value(i));
      out << (i % 16 == 15 || i + 1 == n ? '\n' : ' ');
    }
  }, 16384);
  text << "        </DataArray>\n";
}

}  // namespace

void write_pores_csv(const std::string& path, const PoreNetwork& network) { write_csv(path, network.pores, network.pore_count); }

void write_throats_csv(const std::string& path, const PoreNetwork& network) {
  write_csv(path, network.throats, network.throat_count);
}

void write_network_json(const std::string& path, const PoreNetwork& net) {
  const NetworkGeometry& g = net.geometry;
  TextBuffer head;
  head << "{\n\"network\": {\"pores\": ";
  head.integer((long long)net.pore_count) << ", \"throats\": ";
  head.integer((long long)net.throat_count) << ", \"shape\": [";
  head.integer(g.nx) << ", ";
  head.integer(g.ny) << ", ";
  head.integer(g.nz) << "], \"spacing\": [";
  head.real(g.spacing.x) << ", ";
  head.real(g.spacing.y) << ", ";
  head.real(g.spacing.z) << "], \"origin\": [";
  head.real(g.origin[0]) << ", ";
  head.real(g.origin[1]) << ", ";
  head.real(g.origin[2]) << "], \"length_unit\": \"" << g.length_unit << "\"},\n\"units\": {";
  bool first = true;
  for (const auto* props : {&net.pores, &net.throats})
    for (const Property& p : *props) {
      head << (first ? "\"" : ", \"") << p.name << "\": \"" << unit_of(g.length_unit, p.length_power) << '"';
      first = false;
    }
  head << '}';
  write_text_file(path, [&](TextWriter& text) {
    text << head;
    for (const Property& p : net.pores) json_property(text, p, net.pore_count);
    for (const Property& p : net.throats) json_property(text, p, net.throat_count);
    text << "\n}\n";
  });
}

void write_network_vtp(const std::string& path, const PoreNetwork& net) {
  const std::size_t np = net.pore_count, nt = net.throat_count;
  write_text_file(path, [&](TextWriter& text) {
    text << "<?xml version=\"1.0\"?>\n"
            "<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
            "  <PolyData>\n"
            "    <Piece NumberOfPoints=\"" +
                std::to_string(np) + "\" NumberOfVerts=\"" + std::to_string(np) + "\" NumberOfLines=\"" +
                std::to_string(nt) + "\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n";
    text << "      <PointData>\n";
    for (const Property& p : net.pores) vtk_array(text, p, np, 0);
    text << "      </PointData>\n      <CellData>\n";
    Property is_throat;
    is_throat.name = "is_throat";
    is_throat.kind = PropertyKind::integer;
    is_throat.values.assign(nt, 1.0);
    vtk_array(text, is_throat, nt, np);
    for (const Property& p : net.throats) vtk_array(text, p, nt, np);
    text << "      </CellData>\n      <Points>\n";
    vtk_array(text, net.pore("pore.coords"), np, 0);
    text << "      </Points>\n      <Verts>\n";
    vtk_index_array(text, "connectivity", np, [](std::size_t i) { return (long long)i; });
    vtk_index_array(text, "offsets", np, [](std::size_t i) { return (long long)i + 1; });
    text << "      </Verts>\n      <Lines>\n";
    const Property& conns = net.throat("throat.conns");
    vtk_index_array(text, "connectivity", 2 * nt, [&](std::size_t i) { return (long long)conns.values[i]; });
    vtk_index_array(text, "offsets", nt, [](std::size_t i) { return 2 * (long long)i + 2; });
    text << "      </Lines>\n    </Piece>\n  </PolyData>\n</VTKFile>\n";
  });
}

}  // namespace gp::pnm
